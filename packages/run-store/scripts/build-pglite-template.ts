// Writes dist/pglite-template.tar.gz: an empty run-store database, PGlite's initdb run once with
// every schema migration applied, which createPGliteRunStore copies into each new database instead
// of running initdb again (a third of the CPU). Run by the package build (`sluice.afterBuild`).
import { writeFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pgliteClient, pgliteTemplateUrl } from '../src/pglite-run-store.js';
import { migrateRunStore } from '../src/run-store-migrations.js';

const database = await PGlite.create();
const client = pgliteClient(database, () => undefined);
await migrateRunStore(client);
await database.query('CHECKPOINT');
const tarball = await database.dumpDataDir('gzip');
writeFileSync(pgliteTemplateUrl, Buffer.from(await tarball.arrayBuffer()));
await client.close();
