// Polls `check` until it holds or the deadline passes (a deadline for a condition, not a measurement).
export async function eventually(check: () => Promise<boolean> | boolean, deadlineMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}
