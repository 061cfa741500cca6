import { describe, expect, it, jest } from '@jest/globals';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider, useMutation } from '@tanstack/react-query';
import { Field, described } from './FormField';
import { useForm } from './useForm';

interface Values {
  name: string;
  email: string;
}

/** A form written the way the app's forms are: fields, one mutation, useForm between them. */
function TestForm({ send }: { send: (values: Values) => Promise<void> }) {
  const mutation = useMutation({ mutationFn: send });
  const { values, errors, set, onSubmit, busy } = useForm<Values>({
    initial: { name: '', email: '' },
    validate: (v) => ({ name: v.name ? undefined : 'Name is required', email: v.email.includes('@') ? undefined : 'Email is invalid' }),
    busy: mutation.isPending,
    onValid: (v) => mutation.mutate(v),
  });
  return (
    <form onSubmit={onSubmit} noValidate>
      <Field id="name" label="Name" error={errors.name}>
        <input {...described('name', errors.name)} value={values.name} onChange={(e) => set('name', e.target.value)} />
      </Field>
      <Field id="email" label="Email" error={errors.email}>
        <input {...described('email', errors.email)} value={values.email} onChange={(e) => set('email', e.target.value)} />
      </Field>
      <button type="submit" disabled={busy} aria-busy={busy}>
        Send
      </button>
    </form>
  );
}

function setup(send: (values: Values) => Promise<void>) {
  const user = userEvent.setup();
  render(
    <QueryClientProvider client={new QueryClient()}>
      <TestForm send={send} />
    </QueryClientProvider>,
  );
  return { user, name: screen.getByLabelText(/Name/), email: screen.getByLabelText(/Email/), button: screen.getByRole('button', { name: 'Send' }) };
}

describe('useForm', () => {
  it('sends nothing while a field is invalid, shows every error and focuses the first invalid field', async () => {
    const send = jest.fn(() => Promise.resolve());
    const { user, name, email, button } = setup(send);

    await user.click(button);
    expect(screen.getByText('Name is required')).toBeInTheDocument();
    expect(screen.getByText('Email is invalid')).toBeInTheDocument();
    expect(name).toHaveAttribute('aria-invalid', 'true');
    expect(name).toHaveFocus();

    // Only the refused fields count: with the name given, focus goes to the e-mail.
    await user.type(name, 'Ada');
    expect(screen.queryByText('Name is required')).toBeNull();
    expect(screen.getByText('Email is invalid')).toBeInTheDocument();
    button.focus();
    await user.click(button);
    expect(email).toHaveFocus();
    expect(name).not.toHaveAttribute('aria-invalid');
    expect(send).not.toHaveBeenCalled();
  });

  it('is busy while the mutation is pending and refuses a second submit meanwhile', async () => {
    let finish = () => {};
    const send = jest.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    const { user, name, email, button } = setup(send);
    await user.type(name, 'Ada');
    await user.type(email, 'ada@example.com');

    await user.click(button);
    await waitFor(() => expect(button).toBeDisabled());
    expect(button).toHaveAttribute('aria-busy', 'true');
    expect(send).toHaveBeenCalledTimes(1);
    expect(send.mock.calls[0]).toContainEqual({ name: 'Ada', email: 'ada@example.com' });

    // A submit that arrives anyway (the button is not the only way to submit) sends nothing more.
    fireEvent.submit(button.closest('form')!);
    expect(send).toHaveBeenCalledTimes(1);

    finish();
    await waitFor(() => expect(button).toBeEnabled());
    expect(button).toHaveAttribute('aria-busy', 'false');
  });
});
