/** Vectors as float32 values, little-endian (what nodes send and what `encoding_format: base64` answers). */
export const toBase64 = (v: Float32Array): string => {
  const b = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) b.writeFloatLE(v[i]!, i * 4);
  return b.toString('base64');
};

/** The float32 values of a base64 text, or null when its bytes are not a whole number of them. */
export const fromBase64 = (text: string): Float32Array | null => {
  const b = Buffer.from(text, 'base64');
  if (b.length % 4 !== 0) return null;
  const v = new Float32Array(b.length / 4);
  for (let i = 0; i < v.length; i++) v[i] = b.readFloatLE(i * 4);
  return v;
};
