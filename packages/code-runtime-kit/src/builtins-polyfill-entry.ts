// The core-js modules of the ES2023–ES2025 built-ins (and Array.fromAsync) that Node 20 lacks or
// that QuickJS-ng gets wrong, bundled into one guest script by the build (`guest-builtins.ts`).
// Each defines its built-in only where the engine has none that passes core-js's own checks; the
// providers delete their engine's own first, so both run these implementations.
import 'core-js/modules/es.object.group-by.js';
import 'core-js/modules/es.map.group-by.js';
import 'core-js/modules/es.promise.with-resolvers.js';
import 'core-js/modules/es.promise.try.js';
import 'core-js/modules/es.set.union.v2.js';
import 'core-js/modules/es.set.intersection.v2.js';
import 'core-js/modules/es.set.difference.v2.js';
import 'core-js/modules/es.set.symmetric-difference.v2.js';
import 'core-js/modules/es.set.is-subset-of.v2.js';
import 'core-js/modules/es.set.is-superset-of.v2.js';
import 'core-js/modules/es.set.is-disjoint-from.v2.js';
import 'core-js/modules/es.array.from-async.js';
import 'core-js/modules/es.iterator.constructor.js';
import 'core-js/modules/es.iterator.from.js';
import 'core-js/modules/es.iterator.map.js';
import 'core-js/modules/es.iterator.filter.js';
import 'core-js/modules/es.iterator.take.js';
import 'core-js/modules/es.iterator.drop.js';
import 'core-js/modules/es.iterator.flat-map.js';
import 'core-js/modules/es.iterator.reduce.js';
import 'core-js/modules/es.iterator.to-array.js';
import 'core-js/modules/es.iterator.for-each.js';
import 'core-js/modules/es.iterator.some.js';
import 'core-js/modules/es.iterator.every.js';
import 'core-js/modules/es.iterator.find.js';
import 'core-js/modules/es.regexp.escape.js';
import 'core-js/modules/es.math.f16round.js';
import 'core-js/modules/es.data-view.get-float16.js';
import 'core-js/modules/es.data-view.set-float16.js';
