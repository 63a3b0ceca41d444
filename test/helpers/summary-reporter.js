// Prints one plain closing line, "N passed, N failed, N skipped", after Jest's own summary.
// With TEST_TIMINGS=<file>: one line per test file, "<seconds> <path>", to find where the run's time goes.
const fs = require('node:fs');
const path = require('node:path');

class SummaryReporter {
  onTestResult(_test, result) {
    const file = process.env.TEST_TIMINGS;
    if (!file) return;
    const seconds = (result.perfStats.end - result.perfStats.start) / 1000;
    const status = result.numFailingTests > 0 || result.testExecError ? 'FAIL' : 'PASS';
    fs.appendFileSync(file, `${seconds.toFixed(1)} ${status} ${path.relative(process.cwd(), result.testFilePath)}\n`);
  }

  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stdout.write(
      `\ntests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`,
    );
  }
}
module.exports = SummaryReporter;
