#!/usr/bin/env node
// `npm start`: the service, once this Node is known to run its TypeScript sources.
import { refuseOldNode } from './node-version.js';

refuseOldNode();
await import('../src/main.ts');
