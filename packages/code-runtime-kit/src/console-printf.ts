/** The built-ins {@link makePrintf} uses, taken before a program could replace them. */
export interface PrintfIntrinsics {
  readonly apply: typeof Reflect.apply;
  readonly indexOf: (this: string, search: string, from?: number) => number;
  readonly stringSlice: (this: string, start?: number, end?: number) => string;
  readonly stringify: typeof JSON.stringify;
  readonly trunc: typeof Math.trunc;
  readonly String: StringConstructor;
  readonly Number: NumberConstructor;
}

/**
 * Printf-style directives for `console` (`%s %d %i %f %j %o %O %c %%` in a first string argument),
 * as Node's console reads them. Self-contained, strict, no imports: the worker-thread provider
 * serialises it with `Function.prototype.toString` into the run's context, the QuickJS provider
 * calls it on the host with the guest's values described. Returns the text and how many arguments
 * it used.
 */
export function makePrintf(
  intrinsics: PrintfIntrinsics,
  show: (value: unknown) => string,
  quote: (text: string) => string,
): (template: string, args: readonly unknown[]) => { text: string; used: number } {
  const {
    apply,
    indexOf,
    stringSlice,
    stringify,
    trunc,
    String: StringConstructor,
    Number: NumberConstructor,
  } = intrinsics;
  return function substitute(template: string, args: readonly unknown[]): { text: string; used: number } {
    let text = '';
    let used = 1;
    let start = 0;
    for (;;) {
      const at = apply(indexOf, template, ['%', start]);
      if (at === -1 || at === template.length - 1) break;
      const directive = apply(stringSlice, template, [at + 1, at + 2]);
      text += apply(stringSlice, template, [start, at]);
      start = at + 2;
      if (directive === '%') {
        text += '%';
        continue;
      }
      if (directive === 'c') {
        used += 1;
        continue;
      }
      if (used >= args.length || apply(indexOf, 'sdifjoO', [directive]) === -1) {
        text += `%${directive}`;
        continue;
      }
      const value = args[used];
      used += 1;
      if (directive === 's') text += typeof value === 'string' ? value : show(value);
      else if (directive === 'd' || directive === 'i' || directive === 'f') {
        const number = typeof value === 'bigint' ? value : NumberConstructor(value as number);
        text +=
          typeof number === 'bigint'
            ? `${StringConstructor(number)}n`
            : StringConstructor(directive === 'i' ? trunc(number) : number);
      } else if (directive === 'j') {
        try {
          text += stringify(value) ?? 'undefined';
        } catch {
          text += '[Circular]';
        }
      } else text += typeof value === 'string' ? quote(value) : show(value);
    }
    return { text: text + apply(stringSlice, template, [start]), used };
  };
}
