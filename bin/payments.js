#!/usr/bin/env node
// The operator CLI. Node 24 runs the TypeScript sources directly.
import { runCli } from '../src/cli/main.ts';

process.exitCode = await runCli(process.argv.slice(2));
