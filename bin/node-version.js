// Plain JavaScript, so that an older Node can run it: the sources are TypeScript, which Node runs
// directly from version 24 (LTS) on. Older ones fail with ERR_UNKNOWN_FILE_EXTENSION and a stack
// trace that does not say why.

export const REQUIRED_NODE_MAJOR = 24;

/** Why this Node cannot run the service, or undefined when it can. */
export function oldNodeMessage(version = process.versions.node) {
  const major = Number(version.split('.')[0]);
  if (major >= REQUIRED_NODE_MAJOR) return undefined;
  return `This service needs Node.js ${REQUIRED_NODE_MAJOR} or newer (it runs its TypeScript sources directly); this is Node.js v${version}. Install Node.js ${REQUIRED_NODE_MAJOR} LTS and try again.\n`;
}

/** Exits with 2, as for a configuration error, when this Node is too old. */
export function refuseOldNode() {
  const message = oldNodeMessage();
  if (message === undefined) return;
  process.stderr.write(message);
  process.exit(2);
}
