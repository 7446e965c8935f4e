/** Polls until a condition holds or the time is up (test support); returns whether it held. */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 3000,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await Bun.sleep(5);
  }
  return condition();
}
