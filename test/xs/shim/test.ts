// A minimal `node:test` for the XS engine: the portable suites import `node:test`, and the XS
// bundle maps that import here. Tests run one after another; results are printed as lines.

declare function print(...values: unknown[]): void;

type TestFn = () => unknown;
interface Registered {
  name: string;
  fn: TestFn;
  skip: boolean;
  /** The suite file that registered it (set by the bundle before each file's body runs). */
  file: string | undefined;
}

/** Which suite file's body is running: the bundle sets it first thing in each file (test/xs/bundle.ts). */
const SUITE_FILE = '__xsSuiteFile';

const registry: Registered[] = [];
const prefixes: string[] = [];

interface TestOptions {
  skip?: boolean | string;
  todo?: boolean | string;
}

export function test(name: string, optionsOrFn: TestOptions | TestFn, maybeFn?: TestFn): void {
  const fn = typeof optionsOrFn === 'function' ? optionsOrFn : maybeFn;
  const options = typeof optionsOrFn === 'function' ? {} : optionsOrFn;
  if (!fn) throw new Error(`test "${name}" has no function`);
  const fullName = [...prefixes, name].join(' > ');
  const file = (globalThis as Record<string, unknown>)[SUITE_FILE];
  registry.push({ name: fullName, fn, skip: Boolean(options.skip || options.todo), file: typeof file === 'string' ? file : undefined });
}

export const it = test;

/** Groups tests; the body runs at once (synchronously) to register them. */
export function describe(name: string, optionsOrFn: TestOptions | (() => void), maybeFn?: () => void): void {
  const fn = typeof optionsOrFn === 'function' ? optionsOrFn : maybeFn;
  prefixes.push(name);
  try {
    fn?.();
  } finally {
    prefixes.pop();
  }
}

export default test;

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/**
 * Runs the registered tests (every one, or those of the suite file `file`) and prints `ok`/`not ok`
 * lines and a final `# xs-summary` JSON line.
 */
export async function runRegisteredTests(file?: string): Promise<void> {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const entry of registry) {
    if (file !== undefined && entry.file !== file) continue;
    if (entry.skip) {
      skipped++;
      print(`skip - ${entry.name}`);
      continue;
    }
    try {
      await entry.fn();
      passed++;
      print(`ok - ${entry.name}`);
    } catch (error) {
      failed++;
      print(`not ok - ${entry.name}: ${describeError(error).split('\n').join(' | ')}`);
    }
  }
  print(`# xs-summary ${JSON.stringify({ passed, failed, skipped })}`);
}
