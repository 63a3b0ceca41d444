// Orders the test files for two Jest workers: Jest's own order (failed first, then slowest first), with the
// heavy files (those that start provisioners, agents or server processes; they wait for each other in
// test/helpers/database-environment.ts) spread out among the light ones, so the worker that is not running a
// heavy file is busy with light ones instead of waiting for the heavy lock.
const { readFileSync } = require('node:fs');
const Sequencer = require('@jest/test-sequencer').default;
const { HEAVY_FILE } = require('./heavy-files');

class SpreadHeavyFiles extends Sequencer {
  sort(tests) {
    const ordered = super.sort(tests);
    const isHeavy = (test) => {
      try {
        return HEAVY_FILE.test(readFileSync(test.path, 'utf8'));
      } catch {
        return false;
      }
    };
    const heavy = ordered.filter(isHeavy);
    const light = ordered.filter((test) => !isHeavy(test));
    if (heavy.length === 0) return ordered;
    const perHeavy = Math.ceil(light.length / heavy.length);
    const spread = [];
    for (let i = 0; i < heavy.length; i++) spread.push(heavy[i], ...light.slice(i * perHeavy, (i + 1) * perHeavy));
    return spread;
  }
}

module.exports = SpreadHeavyFiles;
