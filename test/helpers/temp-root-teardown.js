/** Jest globalTeardown: removes the run's temporary root (temp-root-setup.js). */
const { rmSync } = require('node:fs');

module.exports = async () => {
  const root = process.env.DEVPLANE_TEST_TMP_ROOT;
  if (root) rmSync(root, { recursive: true, force: true, maxRetries: 3 });
};
