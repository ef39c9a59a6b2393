#!/usr/bin/env node
// The operator CLI. Node 24 runs the TypeScript sources directly.
import { refuseOldNode } from './node-version.js';

refuseOldNode();
const { runCli } = await import('../src/cli/main.ts');
process.exitCode = await runCli(process.argv.slice(2));
