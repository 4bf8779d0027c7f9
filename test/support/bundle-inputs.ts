/**
 * The packages a bundle is made of, from the paths esbuild lists (its metafile's inputs, or its source
 * map's sources): the package of a file is the one under its last node_modules/, so a package nested in
 * another counts as itself.
 */

/** The AWS clients only the operator tool uses: a consumer's bundle must carry none of them. */
export const OPERATOR_CLIENTS = [
  '@aws-sdk/client-lambda',
  '@aws-sdk/client-s3',
  '@aws-sdk/client-cloudformation',
] as const;

export function bundledPackages(paths: readonly string[]): string[] {
  const packages = new Set<string>();
  for (const path of paths) {
    const inModules = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
    if (inModules?.[1]) packages.add(inModules[1]);
  }
  return [...packages].sort();
}
