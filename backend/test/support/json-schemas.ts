import Ajv from 'ajv';
import addFormats from 'ajv-formats';

/**
 * JSON schemas the generators' tests share: values the near-random tiny model can only write in bounded ways (enums,
 * booleans, integers, bounded strings), so a reply that does not end where its JSON does is the grammar's fault.
 */
export const WEATHER = {
  type: 'object',
  properties: {
    city: { enum: ['Paris', 'Tokyo'] },
    days: { type: 'integer' },
    ok: { type: 'boolean' },
    note: { type: 'string', maxLength: 12 },
  },
  required: ['city', 'days', 'ok', 'note'],
  additionalProperties: false,
};
/** A tool call or a plain answer, as the OpenAI-compatible API asks for one when tools are offered. */
export const ENVELOPE = {
  oneOf: [
    {
      type: 'object',
      properties: {
        name: { const: 'get_weather' },
        arguments: {
          type: 'object',
          properties: { city: { type: 'string', maxLength: 20 }, unit: { enum: ['c', 'f'] }, when: { type: 'string', format: 'date' } },
          required: ['city', 'unit', 'when'],
          additionalProperties: false,
        },
      },
      required: ['name', 'arguments'],
      additionalProperties: false,
    },
    { type: 'object', properties: { response: { type: 'string', maxLength: 40 } }, required: ['response'], additionalProperties: false },
  ],
};

/** A JSON-schema validator that knows the formats a grammar writes (date, time, date-time). */
export const schemaValidator = () => addFormats(new Ajv({ strict: false }));
