import { runCli } from './run';

// The process entry point: everything testable lives in runCli.
void runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() }).then((code) => {
  process.exitCode = code;
});
