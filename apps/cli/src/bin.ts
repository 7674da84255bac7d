#!/usr/bin/env node
import { endOutputQuietlyWhenClosed } from './output.js';
import { run } from './program.js';

endOutputQuietlyWhenClosed();

// The one place the CLI reads the environment: the API's loadConfig validates it.
// biome-ignore lint/style/noProcessEnv: handed over once, read only by loadConfig
process.exitCode = await run(process.argv, process.env);
