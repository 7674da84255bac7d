/** The two engines a store runs on. Its own module, so the migrations name it without importing the store. */
export type Dialect = 'sqlite' | 'postgres';
