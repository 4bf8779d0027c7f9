import { describe, expect, it } from 'vitest';
import {
  checkJavaRuntime,
  JavaRuntimeError,
  javaMajorVersion,
} from '../../../../local/dynamodb-local/java-runtime.js';

describe('javaMajorVersion', () => {
  it('reads the major version from both version schemes', () => {
    expect(javaMajorVersion('openjdk version "17.0.15" 2025-04-15')).toBe(17);
    expect(javaMajorVersion('openjdk version "21" 2023-09-19')).toBe(21);
    expect(javaMajorVersion('java version "1.8.0_422"')).toBe(8);
    expect(javaMajorVersion('garbage')).toBe(0);
  });
});

describe('checkJavaRuntime', () => {
  it('says what to install, in one line, when there is no Java', () => {
    expect(() => checkJavaRuntime(undefined)).toThrow(JavaRuntimeError);
    expect(() => checkJavaRuntime(undefined)).toThrow(
      /^java is not installed .*apt-get install openjdk-17-jre-headless/,
    );
  });

  it('refuses a runtime older than 17, naming the one found', () => {
    const old = { description: 'java version "1.8.0_422"', major: 8 };
    expect(() => checkJavaRuntime(old)).toThrow(/needs Java 17 or newer, found java version "1.8.0_422"/);
  });

  it('accepts Java 17 and newer', () => {
    const runtime = { description: 'openjdk version "17.0.15"', major: 17 };
    expect(checkJavaRuntime(runtime)).toBe(runtime);
  });
});
