// The multipart splitter on its own: RFC 2046's leniencies (preamble, epilogue, whitespace after
// a boundary, a part without headers), header parameters as clients write them, and every way a
// body can be cut short or malformed, each with its own message.
import { describe, expect, test } from 'vitest';
import {
  headerParam,
  multipartBoundary,
  MultipartSyntaxError,
  splitMultipart,
} from '../../../platform/http/multipartParts.ts';

const body = (text: string) => Buffer.from(text, 'utf8');
const texts = (text: string, boundary = 'b0undary') =>
  splitMultipart(body(text), boundary).map((p) => ({
    headers: Object.fromEntries(p.headers),
    body: p.body.toString('utf8'),
  }));

describe('splitMultipart', () => {
  test('parts with their headers (names in lower case, values trimmed) and bodies', () => {
    const text =
      '--b0undary\r\nContent-Disposition: form-data; name="post.1"\r\nContent-Type: application/json; length=2\r\n\r\n{}\r\n' +
      '--b0undary\r\ncontent-disposition:form-data; name="a"\r\n\r\nline one\r\nline two\r\n--b0undary--\r\n';
    expect(texts(text)).toEqual([
      {
        headers: { 'content-disposition': 'form-data; name="post.1"', 'content-type': 'application/json; length=2' },
        body: '{}',
      },
      { headers: { 'content-disposition': 'form-data; name="a"' }, body: 'line one\r\nline two' },
    ]);
  });

  test('a preamble, an epilogue, whitespace after a boundary and a part without headers are accepted', () => {
    const text =
      'preamble to ignore\r\n--b0undary  \r\n\r\nno headers\r\n--b0undary\r\nX-A: 1\r\nx-a: 2\r\n\r\n\r\n--b0undary--epilogue';
    expect(texts(text)).toEqual([
      { headers: {}, body: 'no headers' },
      { headers: { 'x-a': '1, 2' }, body: '' },
    ]);
  });

  test('a body cut anywhere before its closing boundary is truncated', () => {
    const text = '--b0undary\r\nContent-Disposition: form-data; name="a"\r\n\r\n{"x":1}\r\n--b0undary--';
    for (let cut = 0; cut < text.length - 2; cut++) {
      expect(() => splitMultipart(body(text.slice(0, cut)), 'b0undary'), `cut at ${cut}`).toThrow(
        cut === 0 ? /empty/ : /truncated/,
      );
    }
    expect(() => splitMultipart(body(text), 'other')).toThrow(/no boundary line \(--other\)/);
  });

  test('malformed bodies say what is wrong', () => {
    expect(() => splitMultipart(body('--b0undaryX\r\n\r\n\r\n--b0undary--'), 'b0undary')).toThrow(
      /goes on after the boundary/,
    );
    expect(() => splitMultipart(body('--b0undary\r\nno colon here\r\n\r\nx\r\n--b0undary--'), 'b0undary')).toThrow(
      /header line is not "name: value"/,
    );
    const long = `--b0undary\r\nX-Long: ${'a'.repeat(20_000)}\r\n\r\nx\r\n--b0undary--`;
    expect(() => splitMultipart(body(long), 'b0undary')).toThrow(/headers are longer than 16384 bytes/);
    expect(() => splitMultipart(body('--b0undary\r\n'), 'b0undary')).toThrow(MultipartSyntaxError);
  });
});

describe('headerParam and multipartBoundary', () => {
  test('quoted, escaped, unquoted and case-insensitive parameters', () => {
    expect(headerParam('form-data; name="post.1"; filename="a.txt"', 'name')).toBe('post.1');
    expect(headerParam('form-data; filename="a;b.txt"; name="x"', 'filename')).toBe('a;b.txt');
    expect(headerParam('form-data; NAME = "say \\"hi\\""', 'name')).toBe('say "hi"');
    expect(headerParam('application/json; length=42', 'length')).toBe('42');
    expect(headerParam('form-data; filename="name=x"', 'name')).toBeNull();
    expect(headerParam('form-data', 'name')).toBeNull();
    // "; name=" inside another parameter's quotes is not the parameter
    expect(headerParam('form-data; filename="; name=evil"; name="real"', 'name')).toBe('real');
    expect(headerParam('form-data; name="a"; filename="x\\"y"', 'name')).toBe('a');
    expect(headerParam('form-data; name="a\\"b"', 'name')).toBe('a"b');
    expect(headerParam('form-data; name=plain ; x=1', 'name')).toBe('plain');
    expect(headerParam('form-data;name="tight"', 'name')).toBe('tight');
  });
  test('the boundary, quoted or not', () => {
    expect(multipartBoundary('multipart/form-data; boundary=abc123')).toBe('abc123');
    expect(multipartBoundary('multipart/form-data; charset=utf-8; boundary="a b:c"')).toBe('a b:c');
    expect(multipartBoundary('multipart/form-data')).toBeNull();
  });
});
