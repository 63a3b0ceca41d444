/**
 * Jest globalSetup (issue 36 item 13): every temporary folder of a test run lives under one root of its
 * own. TMPDIR is set before the workers start, so they, the servers, git, npm and every other child
 * process they start create their temporary files there (os.tmpdir(), mkdtemp); globalTeardown
 * (temp-root-teardown.js) removes the root, whatever a test left behind.
 */
const { mkdtempSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');

module.exports = async () => {
  // Short: the embedded database's Unix socket path (inside a DATA_DIR under this root) is limited to 107 bytes.
  const root = mkdtempSync(path.join(os.tmpdir(), 'dpt-'));
  process.env.DEVPLANE_TEST_TMP_ROOT = root;
  process.env.TMPDIR = root;
};
