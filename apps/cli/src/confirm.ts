import { createInterface } from 'node:readline';

/** Whether a person is at the keyboard: standard input and output both a terminal. */
export function atTerminal(): boolean {
  return process.stdin.isTTY === true && process.stdout.isTTY === true;
}

/** Asks a yes/no question on the terminal; only "y" or "yes" is yes, and the end of input is no. */
export function confirmed(question: string): Promise<boolean> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    rl.once('close', () => resolve(false));
    rl.question(question, (answer) => {
      resolve(/^y(es)?$/i.test(answer.trim()));
      rl.close();
    });
  });
}
