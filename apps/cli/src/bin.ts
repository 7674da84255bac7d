#!/usr/bin/env node
import { EXIT_CODES } from './errors.js';
import { processStreams } from './io.js';
import { run } from './program.js';

// The one place the CLI reads the process: its environment (which only loadConfig validates) and its streams.
// biome-ignore lint/style/noProcessEnv: handed over once, read only by loadConfig
const env = process.env;
process.exitCode = await run(process.argv, { env, ...processStreams(EXIT_CODES.cannot_write) });
