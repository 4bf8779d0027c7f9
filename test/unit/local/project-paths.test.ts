import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { displayPath, LOCAL_RUN_DIRECTORY, PROJECT_ROOT } from '../../../local/project-paths.js';

describe('displayPath', () => {
  it('shows a path inside the project relative to it, so output names no machine path', () => {
    expect(displayPath(join(LOCAL_RUN_DIRECTORY, 'logs', 'order-consumer.log'))).toBe(
      join('.local-run', 'logs', 'order-consumer.log'),
    );
  });

  it('keeps a path outside the project as it is', () => {
    const outside = join(PROJECT_ROOT, '..', 'elsewhere', 'file');
    expect(displayPath(outside)).toBe(outside);
  });
});
