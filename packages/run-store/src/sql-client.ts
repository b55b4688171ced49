/** A value bound to a `$n` placeholder; an array binds a PostgreSQL array (`$2::text[]`). */
export type SqlParameter = string | number | boolean | null | readonly (string | number | null)[];

/** Runs one SQL statement with `$1`-style parameters and resolves with its rows. */
export interface SqlQueryable {
  query<Row extends object>(text: string, parameters?: readonly SqlParameter[]): Promise<Row[]>;
}

/**
 * The little the run store needs of a database: statements, transactions and closing. Implemented
 * over PGlite and over a node-postgres pool, so both stores share one SQL.
 */
export interface SqlClient extends SqlQueryable {
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it rejects. */
  transaction<Result>(work: (transaction: SqlQueryable) => Promise<Result>): Promise<Result>;
  /** Releases the connection; called once. */
  close(): Promise<void>;
}
