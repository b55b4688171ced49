#!/usr/bin/env node
// A checked-in entry, so package managers can link the `sluice-mcp` command before the package is built.
import '../dist/bin.js';
