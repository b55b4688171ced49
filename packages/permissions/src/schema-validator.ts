import { createRequire } from 'node:module';
import type { JsonValue } from '@sluice/code-runtime';
import type { Ajv, ErrorObject, Options, ValidateFunction } from 'ajv';
import type { Ajv2019 } from 'ajv/dist/2019.js';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type addFormats from 'ajv-formats';
import type { JsonSchema } from './tool.js';

/** Checks a value against a compiled schema: the problems, each naming its JSON path, or `undefined` when valid. */
export type SchemaCheck = (value: JsonValue) => readonly string[] | undefined;

type Draft = '2020-12' | '2019-09' | 'draft-07';

const drafts: Readonly<Record<string, Draft>> = {
  'https://json-schema.org/draft/2020-12/schema': '2020-12',
  'https://json-schema.org/draft/2019-09/schema': '2019-09',
  'http://json-schema.org/draft-07/schema': 'draft-07',
  'https://json-schema.org/draft-07/schema': 'draft-07',
};

// Validation must never change the input it checks (a changed input could slip past a policy check
// made before it), so coercion, defaults and property removal stay off, as they are by default.
const ajvOptions: Options = { allErrors: true, strict: false, logger: false, addUsedSchema: false };
const validators = new Map<Draft, Ajv | Ajv2019 | Ajv2020>();
// Two caches: one per schema object, alive as long as the host keeps the tool (so a catalogue of any
// size compiles once, however often bindings are derived), and a bounded least-recently-used one by
// schema text for schemas rebuilt as new objects. Entries are keyed by text, so a schema object
// changed in place is compiled again rather than checked by its old validator.
const bySchema = new WeakMap<object, { readonly key: string; readonly validate: ValidateFunction }>();
const cache = new Map<string, ValidateFunction>();
const cacheLimit = 1000;
const maxProblems = 5;

/**
 * Compiles a JSON Schema once. The dialect is taken from `$schema` (2020-12, 2019-09 or draft-07;
 * 2020-12 when absent). Known `format`s are checked; unknown keywords and formats are ignored.
 * Compiled validators are shared across derives: by schema object while it lives, and by schema text
 * (the 1 000 most recently used). Throws `Error` with the
 * validator's reason when the schema itself is invalid or its dialect unsupported.
 */
export function compileSchema(schema: JsonSchema): SchemaCheck {
  const { $schema, ...rest } = schema;
  const draft = $schema === undefined ? '2020-12' : drafts[String($schema).replace(/#$/, '')];
  if (draft === undefined) {
    throw new Error(`$schema ${JSON.stringify($schema)} is not supported; use 2020-12, 2019-09 or draft-07`);
  }
  const key = `${draft}\n${JSON.stringify(rest)}`;
  const own = bySchema.get(schema);
  let validate = own?.key === key ? own.validate : cache.get(key);
  if (validate === undefined) {
    const validator = validatorFor(draft);
    validate = validator.compile(rest);
    // Ajv keeps every schema object it compiled; these caches are the ones that are bounded.
    validator.removeSchema(rest);
  } else {
    cache.delete(key);
  }
  cache.set(key, validate);
  if (cache.size > cacheLimit) cache.delete(cache.keys().next().value!);
  bySchema.set(schema, { key, validate });
  const compiled = validate;
  return (value) => (compiled(value) ? undefined : describeErrors(compiled.errors ?? []));
}

/**
 * Ajv for one dialect, loaded when a schema of it is first compiled: loading Ajv takes a good part
 * of a second, which deriving bindings for tools without schemas, or no tools, should not pay.
 * Through `require` (Ajv is CommonJS), so compiling stays synchronous.
 */
function validatorFor(draft: Draft): Ajv | Ajv2019 | Ajv2020 {
  let validator = validators.get(draft);
  if (validator === undefined) {
    const load = createRequire(import.meta.url);
    validator =
      draft === '2020-12'
        ? new (load('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 }).Ajv2020(ajvOptions)
        : draft === '2019-09'
          ? new (load('ajv/dist/2019.js') as { Ajv2019: typeof Ajv2019 }).Ajv2019(ajvOptions)
          : new (load('ajv') as { Ajv: typeof Ajv }).Ajv(ajvOptions);
    (load('ajv-formats') as typeof addFormats).default(validator);
    validators.set(draft, validator);
  }
  return validator;
}

function describeErrors(errors: readonly ErrorObject[]): string[] {
  const problems = [...new Set(errors.map(describeError))];
  if (problems.length <= maxProblems) return problems;
  return [...problems.slice(0, maxProblems), `and ${problems.length - maxProblems} more`];
}

function describeError(error: ErrorObject): string {
  const path = jsonPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${childPath(path, String(params.missingProperty))} is required`;
    case 'additionalProperties':
      return `${childPath(path, String(params.additionalProperty))} is not allowed`;
    case 'unevaluatedProperties':
      return `${childPath(path, String(params.unevaluatedProperty))} is not allowed`;
    case 'enum':
      return `${path} must be one of ${(params.allowedValues as unknown[]).map((item) => JSON.stringify(item)).join(', ')}`;
    case 'const':
      return `${path} must be ${JSON.stringify(params.allowedValue)}`;
    default:
      return `${path} ${error.message ?? `fails ${error.keyword}`}`;
  }
}

/** Turns a JSON Pointer (`/items/3/name`) into the path a program author reads (`$.items[3].name`). */
function jsonPath(pointer: string): string {
  if (pointer === '') return '$';
  let path = '$';
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    path = /^(?:0|[1-9][0-9]*)$/.test(segment) ? `${path}[${segment}]` : childPath(path, segment);
  }
  return path;
}

function childPath(path: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}
