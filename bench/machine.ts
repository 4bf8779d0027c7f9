import { cpus, totalmem } from 'node:os';
import { findJavaRuntime } from '../local/dynamodb-local/java-runtime.js';

export interface MachineDescription {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGb: number;
  readonly node: string;
  readonly java: string;
  readonly os: string;
}

export function describeMachine(): MachineDescription {
  const processors = cpus();
  return {
    cpu: processors[0]?.model.trim() ?? 'unknown',
    cores: processors.length,
    memoryGb: Math.round(totalmem() / 1024 ** 3),
    node: process.version,
    java: javaVersion(),
    os: `${process.platform} ${process.arch}`,
  };
}

function javaVersion(): string {
  return findJavaRuntime()?.description || 'unknown';
}
