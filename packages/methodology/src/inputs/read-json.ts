import { parse } from 'lossless-json';
import { dec, significantDigits } from '../decimal.js';
import { TooPreciseNumber } from './messages.js';

export class JsonSyntaxError extends Error {
  override readonly name = 'JsonSyntaxError';
}

/**
 * Parses JSON text, keeping every number as written: a number of at most 15
 * significant digits becomes a JS number (which gives those digits back
 * exactly); a longer one stays a TooPreciseNumber so validation refuses it
 * instead of silently rounding it.
 */
export function readJson(text: string): unknown {
  try {
    return parse(text, null, (lexeme: string) => {
      const value = Number(lexeme);
      const exact = Number.isFinite(value) && significantDigits(dec(lexeme)) <= 15;
      return exact ? value : new TooPreciseNumber(lexeme);
    });
  } catch (error) {
    throw new JsonSyntaxError((error as Error).message);
  }
}
