import { Field, described } from '../../components/FormField';
import { LIMITS } from './validation';

interface Person {
  name: string;
  email: string;
}

/** The name and e-mail row both contact forms start with. */
export function PersonFields<V extends Person>({
  prefix,
  values,
  errors,
  set,
}: {
  prefix: string;
  values: V;
  errors: { name?: string | undefined; email?: string | undefined };
  set: (key: 'name' | 'email', value: string) => void;
}) {
  return (
    <div className="form-row">
      <Field id={`${prefix}-name`} label="Full Name" error={errors.name}>
        <input
          {...described(`${prefix}-name`, errors.name)}
          className="input"
          name="name"
          autoComplete="name"
          maxLength={LIMITS.name}
          value={values.name}
          onChange={(e) => set('name', e.target.value)}
          placeholder="Your name"
        />
      </Field>
      <Field id={`${prefix}-email`} label="Email Address" error={errors.email}>
        <input
          {...described(`${prefix}-email`, errors.email)}
          className="input"
          type="email"
          name="email"
          autoComplete="email"
          maxLength={LIMITS.email}
          value={values.email}
          onChange={(e) => set('email', e.target.value)}
          placeholder="you@example.com"
        />
      </Field>
    </div>
  );
}
