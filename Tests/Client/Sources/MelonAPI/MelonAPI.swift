// The generated `Client` and `Types` of Melon's API (docs/openapi.json): the build plugin writes
// them at build time; this file only gives the target a source of its own.
