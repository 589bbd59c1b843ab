// fast-levenshtein ships no types; gatewayctl only measures the distance between two command ids.
declare module 'fast-levenshtein' {
  const levenshtein: { get(a: string, b: string): number };
  export default levenshtein;
}
