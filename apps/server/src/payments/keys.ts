import fs from 'node:fs';

/** A key setting holds the PEM (or bare base64) itself, or names a file that does. */
export function keyText(value: string): string {
  if (value.includes('-----BEGIN')) return value.replace(/\\n/g, '\n');
  if (!/^[A-Za-z0-9+/=\s]+$/.test(value) && fs.existsSync(value)) return fs.readFileSync(value, 'utf8');
  return value;
}
