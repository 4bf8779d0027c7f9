#!/usr/bin/env node
// `msk-inbox`, as package.json's `bin` names it. In a checkout (bin/msk-inbox.ts beside this file) it runs
// the TypeScript through tsx, a devDependency, so no build step comes first and no stale dist/ is run;
// in an installed package (which ships only dist/ and this file) it runs the built dist/bin/msk-inbox.js.
import { existsSync } from 'node:fs';

// The SDK warns on every run under Node 20 that its 2027 releases need Node 22: news for the package's
// maintainers, not for an operator, whose errors are meant to be one line.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const source = new URL('./msk-inbox.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import(new URL('../dist/bin/msk-inbox.js', import.meta.url).href);
}
