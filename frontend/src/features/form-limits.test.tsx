import constants from '@glob/contract/constants.json';
import spec from '@glob/contract/openapi.json';
import { describe, expect, it } from '@jest/globals';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../test/render';
import { SettingsPanel } from './assistant/SettingsPanel';
import { MIN_PASSWORD, MSG } from './auth/messages';
import { RegisterFlow } from './auth/RegisterFlow';
import { ContactPage } from './contact/ContactPage';
import { NodeName, validateNodeName } from './nodes/NodeName';
import { NODES_TEXTS, POOLS_TEXTS } from './nodes/texts';

type SchemaNode = { $ref?: string; properties?: Record<string, SchemaNode> } & Record<string, unknown>;
const schemas = spec.components.schemas as unknown as Record<string, SchemaNode>;

/** A field's limit as the spec states it: on the property itself, or on the schema it refers to. */
function specLimit(schema: string, field: string, keyword: string): number {
  const property = schemas[schema]?.properties?.[field];
  if (!property) throw new Error(`The spec has no ${schema}.${field}`);
  const node = property[keyword] === undefined && property.$ref ? schemas[property.$ref.split('/').at(-1)!]! : property;
  const value = node[keyword];
  if (typeof value !== 'number') throw new Error(`${schema}.${field} states no ${keyword}`);
  return value;
}

describe('the generated field limits', () => {
  it.each([
    ['RegisterWithOtpRequest', 'username', 'maxLength'],
    ['RegisterWithOtpRequest', 'password', 'minLength'],
    ['RegisterWithOtpRequest', 'password', 'maxLength'],
    ['ContactMessage', 'message', 'maxLength'],
    ['Testimonial', 'message', 'maxLength'],
    ['NodeUpdate', 'name', 'maxLength'],
    ['PoolCreate', 'node_ids', 'minItems'],
    ['PoolCreate', 'node_ids', 'maxItems'],
    ['TransferRequest', 'note', 'maxLength'],
    ['ConversationSettings', 'system_prompt', 'maxLength'],
  ])('state the spec’s %s.%s %s', (schema, field, keyword) => {
    const table = constants.fieldLimits as unknown as Record<string, Record<string, Record<string, number>>>;
    expect(table[schema]?.[field]?.[keyword]).toBe(specLimit(schema, field, keyword));
  });
});

describe('the forms’ limits are the spec’s', () => {
  it('registration: username, e-mail and password lengths', async () => {
    await renderWithProviders(<RegisterFlow step="form" onStep={() => {}} onSignedIn={() => {}} />);
    expect(screen.getByLabelText('Username')).toHaveAttribute('maxLength', String(specLimit('RegisterWithOtpRequest', 'username', 'maxLength')));
    expect(screen.getByLabelText('Email')).toHaveAttribute('maxLength', String(specLimit('RegisterWithOtpRequest', 'email', 'maxLength')));
    const max = String(specLimit('RegisterWithOtpRequest', 'password', 'maxLength'));
    expect(screen.getByLabelText('Password')).toHaveAttribute('maxLength', max);
    expect(screen.getByLabelText('Confirm Password')).toHaveAttribute('maxLength', max);
    expect(MIN_PASSWORD).toBe(specLimit('RegisterWithOtpRequest', 'password', 'minLength'));
  });

  it('contact and testimonial: the fields’ lengths', async () => {
    const user = userEvent.setup();
    await renderWithProviders(<ContactPage />, { path: '/contact' });
    await screen.findByRole('heading', { level: 1 });
    // Both forms share the name field: the shorter of their limits.
    const name = String(Math.min(specLimit('ContactMessage', 'name', 'maxLength'), specLimit('Testimonial', 'name', 'maxLength')));
    expect(screen.getByLabelText(/Full Name/)).toHaveAttribute('maxLength', name);
    expect(screen.getByLabelText(/Message/)).toHaveAttribute('maxLength', String(specLimit('ContactMessage', 'message', 'maxLength')));
    await user.click(screen.getByRole('tab', { name: 'Submit Testimonial' }));
    expect(screen.getByLabelText(/Your Experience/)).toHaveAttribute('maxLength', String(specLimit('Testimonial', 'message', 'maxLength')));
    expect(screen.getByLabelText(/Role or Company/)).toHaveAttribute('maxLength', String(specLimit('Testimonial', 'role', 'maxLength')));
    expect(screen.getByLabelText(/Full Name/)).toHaveAttribute('maxLength', name);
  });

  it('a node’s name: the input’s length and the check before sending', async () => {
    const user = userEvent.setup();
    const max = specLimit('NodeUpdate', 'name', 'maxLength');
    await renderWithProviders(<NodeName name="living-room-pc" busy={false} onRename={() => {}} />);
    await user.click(screen.getByRole('button', { name: /Rename/ }));
    expect(screen.getByLabelText(NODES_TEXTS.nameLabel)).toHaveAttribute('maxLength', String(max));
    expect(validateNodeName('n'.repeat(max))).toBeNull();
    expect(validateNodeName('n'.repeat(max + 1))).toBe(NODES_TEXTS.nameTooLong);
  });

  it('a conversation’s system prompt', async () => {
    const settings = { system_prompt: '', ...constants.inferenceParamDefaults };
    await renderWithProviders(<SettingsPanel settings={settings} defaults={settings} onSave={async () => true} onClose={() => {}} />);
    expect(screen.getByRole('textbox', { name: /System prompt/i })).toHaveAttribute(
      'maxLength',
      String(specLimit('ConversationSettings', 'system_prompt', 'maxLength')),
    );
  });
});

// These words are product texts or are read by the Playwright tests (which cannot import the generated JSON): they
// stay literal, and must state the spec's numbers.
describe('the words that state a limit', () => {
  it('say the spec’s numbers', () => {
    const password = specLimit('RegisterWithOtpRequest', 'password', 'minLength');
    expect(MSG.passwordShort).toBe(`Password must be at least ${password} characters`);
    expect(MSG.passwordHint).toBe(`At least ${password} characters.`);
    expect(NODES_TEXTS.nameTooLong).toBe(`At most ${specLimit('NodeUpdate', 'name', 'maxLength')} characters`);
    expect(POOLS_TEXTS.nodesTooFew).toBe(`Choose at least ${specLimit('PoolCreate', 'node_ids', 'minItems')} nodes`);
    expect(POOLS_TEXTS.nodesTooMany).toBe(`Choose at most ${specLimit('PoolCreate', 'node_ids', 'maxItems')} nodes`);
    expect(POOLS_TEXTS.nodesHint).toMatch(new RegExp(`^Choose at least ${specLimit('PoolCreate', 'node_ids', 'minItems')}\\. `));
  });
});
