import test from 'ava';
import { ANY_POSITIVE, numberFromEnv } from '../../src/lib/env-number.ts';

test('numberFromEnv: the value when it is a number the rule takes, else the fallback', (t) => {
  const env = { A: '250', Z: '0', F: '0.5', NEG: '-3', WORD: 'soon', BLANK: '  ', PAD: ' 40 ' };
  t.is(numberFromEnv(env, 'A', 7), 250);
  t.is(numberFromEnv(env, 'MISSING', 7), 7);
  t.is(numberFromEnv(env, 'BLANK', 7), 7);
  t.is(numberFromEnv(env, 'WORD', 7), 7);
  t.is(numberFromEnv(env, 'PAD', 7), 40);
  t.is(numberFromEnv(env, 'Z', 7), 7, 'positive by default');
  t.is(numberFromEnv(env, 'Z', 7, { min: 0 }), 0, '0 where the rule allows it');
  t.is(numberFromEnv(env, 'NEG', 7, { min: 0 }), 7);
  t.is(numberFromEnv(env, 'F', 7), 7, 'whole numbers by default');
  t.is(numberFromEnv(env, 'F', 7, ANY_POSITIVE), 0.5);
  t.is(numberFromEnv(env, 'Z', 7, ANY_POSITIVE), 7);
});
