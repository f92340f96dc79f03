import { errorText } from '../src/core/error-body';
/** Declare the tool's `fail` with this type: TypeScript narrows on `never` only through annotated names. */
export type Fail = (message: string, code?: number) => never;

/** A command-line tool's frame: `name: message` on stderr and exit 2 for bad use. */
export function cli(name: string, help: string) {
  const fail: Fail = (message, code = 2) => {
    process.stderr.write(`${name}: ${message}\n`);
    process.exit(code);
  };
  /**
   * Runs the tool's `parseArgs` (with a `help` option): a bad option prints the usage,
   * `--help` prints it and exits.
   */
  const parse = <V extends { help?: boolean }>(run: () => V): V => {
    let values: V;
    try {
      values = run();
    } catch (error) {
      return fail(`${errorText(error)}\n${help}`);
    }
    if (values.help) {
      process.stdout.write(`${help}\n`);
      process.exit(0);
    }
    return values;
  };
  return { fail, parse };
}
