import { createInterface } from 'node:readline';
import { io, writeOut } from './io.js';

/** Whether a person is at the keyboard: the run's standard input and output both a terminal. */
export function atTerminal(): boolean {
  const { stdin, stdout } = io();
  return stdin.isTTY === true && stdout.isTTY === true;
}

/** Asks a yes/no question on the terminal; only "y" or "yes" is yes, and the end of input is no. */
export function confirmed(question: string): Promise<boolean> {
  writeOut(question);
  return new Promise((resolve) => {
    // The terminal echoes what is typed itself; readline only reads the answer's line.
    const rl = createInterface({ input: io().stdin, terminal: false });
    rl.once('close', () => resolve(false));
    rl.once('line', (answer) => {
      resolve(/^y(es)?$/i.test(answer.trim()));
      rl.close();
    });
  });
}
