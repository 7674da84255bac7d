/** The engine's identity, written into every computation package (kept equal to package.json by a test). */
export const ENGINE = { name: '@svc/methodology', version: '1.0.0' } as const;
