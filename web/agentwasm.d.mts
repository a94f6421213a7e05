// Declarations for agentwasm.mjs: TypeScript looks for a .d.mts beside a .mjs.
// The declarations themselves are in agentwasm.d.ts.
export * from './agentwasm.js';
