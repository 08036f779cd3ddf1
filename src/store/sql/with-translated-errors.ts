import type { SqlDialect } from "./dialects/sql-dialect.js";

/** Runs `operation`, turning database errors the client caused into `ScimError`s (`SqlDialect.translateError`). */
export async function withTranslatedErrors<T>(dialect: SqlDialect, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw dialect.translateError ? dialect.translateError(error) : error;
  }
}
