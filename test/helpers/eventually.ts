// Polls `check` until it holds or the deadline passes (a deadline for a condition, not a measurement).
// 30 s by default: a passing check returns at once, and a loaded 2-core machine has been seen to need
// more than 10 s for a notification's retry to be delivered (test/delivery/deliver.test.ts).
export async function eventually(check: () => Promise<boolean> | boolean, deadlineMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}
