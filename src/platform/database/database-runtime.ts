/** Where the database is: resolved before the Nest app is built (see database-runtime.factory.ts). */
export interface DatabaseRuntime {
  url: string;
  embedded: boolean;
}

export const DATABASE_RUNTIME = Symbol('DATABASE_RUNTIME');
