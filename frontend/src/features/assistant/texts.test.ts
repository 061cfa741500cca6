import constants from '@glob/contract/constants.json';
import { describe, expect, it } from '@jest/globals';
import { formatDateTime } from '../../components/format';
import { SETTINGS_TEXT } from './reply-texts';
import { chatTitle } from './texts';

describe('a new conversation’s title', () => {
  it('is Chat and the day in the app’s one date format, the one its lists use', () => {
    const day = new Date(2026, 10, 25, 14, 30);
    expect(chatTitle(day)).toBe('Chat Nov 25, 2026');
    expect(formatDateTime(day.toISOString())).toContain('Nov 25, 2026');
  });
});

describe('the settings panel’s words', () => {
  it('state the spec’s sampling ranges, the ones the panel checks', () => {
    const r = constants.inferenceParamRanges;
    expect(SETTINGS_TEXT.temperature).toBe(`Temperature (${r.temperature.minimum}–${r.temperature.maximum})`);
    expect(SETTINGS_TEXT.maxTokens).toBe(`Max tokens (${r.max_tokens.minimum}–${r.max_tokens.maximum})`);
    expect(SETTINGS_TEXT.topP).toBe(`Top P (${r.top_p.minimum}–${r.top_p.maximum})`);
    expect(SETTINGS_TEXT.invalid).toEqual({
      temperature: `Temperature must be a number from ${r.temperature.minimum} to ${r.temperature.maximum}.`,
      max_tokens: `Max tokens must be a whole number from ${r.max_tokens.minimum} to ${r.max_tokens.maximum}.`,
      top_p: `Top P must be a number from ${r.top_p.minimum} to ${r.top_p.maximum}.`,
    });
  });
});
