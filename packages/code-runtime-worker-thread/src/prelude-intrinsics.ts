import type { InspectIntrinsics } from '@sluice/code-runtime-kit';
/**
 * The built-ins the in-context prelude captures before the program runs, so that a program that
 * replaces `JSON.stringify`, `Array.prototype.push` or `Object.keys` cannot change how its logs,
 * calls and result are reported; `console`'s inspector's share of them is the kit's
 * `InspectIntrinsics`. Types only: the values live in the run's context.
 */
export interface PreludeIntrinsics extends InspectIntrinsics {
  readonly construct: typeof Reflect.construct;
  readonly defineProperty: typeof Object.defineProperty;
  readonly freeze: typeof Object.freeze;
  readonly create: typeof Object.create;
  readonly getOwnPropertySymbols: typeof Object.getOwnPropertySymbols;
  readonly arrayFrom: typeof Array.from;
  readonly arraySort: typeof Array.prototype.sort;
  readonly iteratorSymbol: typeof Symbol.iterator;
  readonly stringPrototype: object;
  readonly parse: typeof JSON.parse;
  readonly max: typeof Math.max;
  readonly min: typeof Math.min;
  readonly Promise: PromiseConstructor;
  readonly promiseThen: typeof Promise.prototype.then;
  readonly Error: ErrorConstructor;
  readonly TypeError: TypeErrorConstructor;
  readonly RangeError: RangeErrorConstructor;
  readonly Proxy: ProxyConstructor;
  readonly mapHas: (this: Map<unknown, unknown>, key: unknown) => boolean;
  readonly arrayPrototype: object;
  readonly bigintPrototype: object;
  readonly arrayBufferByteLength: (this: ArrayBuffer) => number;
  readonly Int32Array: Int32ArrayConstructor;
  readonly Uint16Array: Uint16ArrayConstructor;
  readonly atomicsStore: typeof Atomics.store;
}

/**
 * Captures {@link PreludeIntrinsics} from the realm it runs in. Serialised with
 * `Function.prototype.toString` into each run's context before the program, so it must stay
 * self-contained; tests also call it directly to exercise the prelude's parts in the host realm.
 */
export function captureIntrinsics(): PreludeIntrinsics {
  const typedArray = Object.getPrototypeOf(Uint8Array) as { prototype: object };
  const typedArrayProto = typedArray.prototype;
  const getter = (owner: object, name: PropertyKey) => Object.getOwnPropertyDescriptor(owner, name)!.get as never;
  return {
    apply: Reflect.apply,
    construct: Reflect.construct,
    defineProperty: Object.defineProperty,
    freeze: Object.freeze,
    create: Object.create,
    keys: Object.keys,
    getPrototypeOf: Object.getPrototypeOf,
    getOwnPropertyDescriptor: Object.getOwnPropertyDescriptor,
    getOwnPropertySymbols: Object.getOwnPropertySymbols,
    is: Object.is,
    hasOwn: Object.hasOwn,
    isArray: Array.isArray,
    arrayFrom: Array.from,
    arraySort: Array.prototype.sort,
    iteratorSymbol: Symbol.iterator,
    stringPrototype: String.prototype,
    stringify: JSON.stringify,
    parse: JSON.parse,
    String,
    Number,
    trunc: Math.trunc,
    max: Math.max,
    min: Math.min,
    isNotANumber: Number.isNaN,
    charCodeAt: String.prototype.charCodeAt,
    stringSlice: String.prototype.slice,
    indexOf: String.prototype.indexOf,
    symbolToString: Symbol.prototype.toString,
    functionToString: Function.prototype.toString,
    dateToISOString: Date.prototype.toISOString,
    dateGetTime: Date.prototype.getTime,
    regExpToString: RegExp.prototype.toString,
    Promise,
    promiseThen: Promise.prototype.then,
    Error,
    TypeError,
    RangeError,
    Proxy,
    Map,
    mapGet: Map.prototype.get,
    mapSet: Map.prototype.set,
    mapDelete: Map.prototype.delete,
    mapHas: Map.prototype.has,
    objectPrototype: Object.prototype,
    arrayPrototype: Array.prototype,
    bigintPrototype: BigInt.prototype,
    errorPrototype: Error.prototype,
    datePrototype: Date.prototype,
    regExpPrototype: RegExp.prototype,
    mapPrototype: Map.prototype,
    setPrototype: Set.prototype,
    promisePrototype: Promise.prototype,
    typedArrayPrototype: typedArrayProto,
    mapEntries: Map.prototype.entries,
    setValues: Set.prototype.values,
    mapSize: getter(Map.prototype, 'size'),
    setSize: getter(Set.prototype, 'size'),
    mapIteratorNext: Object.getPrototypeOf(new Map().entries()).next,
    setIteratorNext: Object.getPrototypeOf(new Set().values()).next,
    typedArrayLength: getter(typedArrayProto, 'length'),
    typedArrayName: getter(typedArrayProto, Symbol.toStringTag),
    arrayBufferByteLength: getter(ArrayBuffer.prototype, 'byteLength'),
    Int32Array,
    Uint16Array,
    atomicsStore: Atomics.store,
  };
}
