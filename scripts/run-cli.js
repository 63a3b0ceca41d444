#!/usr/bin/env node
// `npm run cli -- <command>` (issue 51.5): never builds. The build in dist/ when there is one (the code a
// server started with `npm start` runs, so the CLI and the server agree), else the source through
// @swc-node/register (a fresh checkout). Plain JavaScript, in this process: it must start without a
// compiler and without a second Node.
'use strict';
const { existsSync } = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const built = path.join(root, 'dist', 'cli.js');
if (existsSync(built)) {
  require(built);
} else {
  require('@swc-node/register');
  require(path.join(root, 'src', 'cli.ts'));
}
