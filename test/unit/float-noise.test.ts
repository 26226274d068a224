import { withoutFloatNoise } from '../../api/request/float-noise';

describe('float noise out of answers', () => {
  it('writes a noisy number at 15 significant digits: money in cents, percents as computed', () => {
    expect(withoutFloatNoise('{"degree":17.619999999999997,"size":4172297999999.9995,"p":0.30000000000000004,"n":-434.99999999999994}')).toBe(
      '{"degree":17.62,"size":4172298000000,"p":0.3,"n":-435}',
    );
  });

  it('leaves numbers with real digits, integers, exponents and strings as they are', () => {
    const clean = '{"a":8.067765567765568,"t":1732212000000,"b":1e-7,"c":"0.30000000000000004","d":["100000000000000000","x\\"99999999"],"e":0}';
    expect(withoutFloatNoise(clean)).toBe(clean);
    expect(withoutFloatNoise('{"x":1.2100000000000002e-7,"s":"1.2100000000000002"}')).toBe('{"x":1.21e-7,"s":"1.2100000000000002"}');
  });

  it('returns an answer without a run of nines or zeros untouched, as the same string', () => {
    const s = JSON.stringify({ data: [{ premium: 1234.56, delta: 0.512345678901 }] });
    expect(withoutFloatNoise(s)).toBe(s);
  });
});

describe('what is not noise', () => {
  it('keeps computed values without a run of eight nines or zeros, whatever else the answer holds', () => {
    const s = '{"zomma":0.0004547986863112004,"sigma":0.11811113628999965,"exposure":26.345662057800002,"x":0.30000000000000004}';
    expect(withoutFloatNoise(s)).toBe(s.replace('0.30000000000000004', '0.3'));
  });

  it('keeps them in an answer without noise too', () => {
    const s = '{"zomma":0.0004547986863112004,"sigma":0.11811113628999965,"exposure":26.345662057800002}';
    expect(withoutFloatNoise(s)).toBe(s);
  });
});
