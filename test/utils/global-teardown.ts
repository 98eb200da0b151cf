export default async function globalTeardown(): Promise<void> {
  // Only the last project's teardown stops the embedded server; jest runs teardowns after all tests.
  const stop = globalThis.__svcEmbeddedStop;
  globalThis.__svcEmbeddedStop = undefined;
  if (stop) await stop();
}
