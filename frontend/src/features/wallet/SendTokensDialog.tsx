import constants from '@glob/contract/constants.json';
import { useEffect, useId, useRef, useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { failureText } from '../../api/errors';
import { newIdempotencyKey, walletMutations, type TransferRequest, type TransferResult } from '../../api/queries/wallet';
import { formatGlob } from '../../components/format';
import { useForm } from '../../components/useForm';
import { useDialogFocus } from '../../components/useDialogFocus';

/** spec WalletAddress: 'glb1' and 38 lowercase hex characters. */
export const ADDRESS_PATTERN = /^glb1[0-9a-f]{38}$/;

export const SEND_TEXTS = {
  title: 'Send Tokens',
  addressLabel: 'Recipient address',
  amountLabel: 'Amount (GLOB)',
  noteLabel: 'Note (optional)',
  review: 'Review',
  cancel: 'Cancel',
  back: 'Back',
  confirm: 'Confirm and Send',
  sending: 'Sending...',
  close: 'Close',
  confirmIntro: 'Please check the transfer. Tokens sent to another wallet cannot be recalled.',
  addressRequired: 'Recipient address is required',
  addressInvalid: 'Enter a valid wallet address: glb1 followed by 38 letters a–f or digits',
  addressOwn: 'You cannot send tokens to your own wallet',
  amountRequired: 'Amount is required',
  amountPositive: 'Amount must be greater than 0',
  amountDecimals: 'Amount can have at most 3 decimals',
  amountTooHigh: 'Amount is more than your available balance',
  network: 'Network error. Please try again.',
  bonusStays: 'The welcome bonus can be spent on the network but not transferred.',
} as const;

type Errors = Partial<Record<'to_address' | 'amount', string>>;
type TransferForm = { to_address: string; amount: string; note: string };

const EMPTY: TransferForm = { to_address: '', amount: '', note: '' };

interface Props {
  userId: string;
  /** The sender's own address (a transfer to it is refused). */
  ownAddress: string | null;
  /** What a transfer may move now (the wallet's transferable_balance). */
  available: number;
  /** The welcome bonus still in the wallet, which stays behind. */
  bonus: number;
  onClose: () => void;
}

/** The request a valid form sends: the address in lower case, no empty note. */
function body(form: TransferForm): TransferRequest {
  const note = form.note.trim();
  return { to_address: form.to_address.trim().toLowerCase(), amount: Number(form.amount.trim()), ...(note ? { note } : {}) };
}

export function validateTransfer(form: { to_address: string; amount: string }, ownAddress: string | null, available: number): Errors {
  const errors: Errors = {};
  const to = form.to_address.trim().toLowerCase();
  if (!to) errors.to_address = SEND_TEXTS.addressRequired;
  else if (!ADDRESS_PATTERN.test(to)) errors.to_address = SEND_TEXTS.addressInvalid;
  else if (ownAddress && to === ownAddress) errors.to_address = SEND_TEXTS.addressOwn;

  const raw = form.amount.trim();
  const amount = Number(raw);
  if (!raw) errors.amount = SEND_TEXTS.amountRequired;
  else if (!/^\d*\.?\d*$/.test(raw) || !Number.isFinite(amount) || amount <= 0) errors.amount = SEND_TEXTS.amountPositive;
  else if ((raw.split('.')[1] ?? '').length > 3) errors.amount = SEND_TEXTS.amountDecimals;
  else if (amount > available) errors.amount = SEND_TEXTS.amountTooHigh;
  return errors;
}

/**
 * 'Send tokens' (beyond the document): address and amount, a confirmation step showing both, then POST transfer with
 * an Idempotency-Key that is reused when the same confirmation is retried. A modal dialog: focus moves in, stays in
 * (Tab cycles), Escape closes, and focus returns to the button that opened it.
 */
export function SendTokensDialog({ userId, ownAddress, available, bonus, onClose }: Props) {
  const ids = { title: useId(), address: useId(), amount: useId(), note: useId(), addressError: useId(), amountError: useId(), hint: useId() };
  const addressInput = useRef<HTMLInputElement>(null);
  const confirmHeading = useRef<HTMLParagraphElement>(null);
  const doneMessage = useRef<HTMLParagraphElement>(null);

  const [step, setStep] = useState<'form' | 'confirm' | 'done'>('form');
  const [serverError, setServerError] = useState<string | null>(null);
  const [result, setResult] = useState<TransferResult | null>(null);
  /** The key of the request being confirmed, bound to its body: the same body retried keeps the key. */
  const [keyed, setKeyed] = useState<{ body: string; key: string } | null>(null);

  const transfer = useMutation(walletMutations.transfer(userId));
  // A valid form goes to the confirmation step; only 'Confirm and Send' starts the transfer.
  const { values, errors, set, onSubmit } = useForm({
    initial: EMPTY,
    validate: (form) => validateTransfer(form, ownAddress, available),
    busy: transfer.isPending,
    onValid: (form) => {
      const json = JSON.stringify(body(form));
      if (keyed?.body !== json) setKeyed({ body: json, key: newIdempotencyKey() });
      setServerError(null);
      setStep('confirm');
    },
  });

  const close = () => {
    if (!transfer.isPending) onClose();
  };
  const { dialog, onKeyDown } = useDialogFocus(close);

  useEffect(() => {
    if (step === 'form') addressInput.current?.focus();
    else if (step === 'confirm') confirmHeading.current?.focus();
    else doneMessage.current?.focus();
  }, [step]);

  const send = () => {
    if (transfer.isPending || !keyed) return;
    setServerError(null);
    transfer.mutate(
      { body: JSON.parse(keyed.body) as TransferRequest, key: keyed.key },
      {
        onSuccess: (res) => {
          setKeyed(null);
          setResult(res);
          setStep('done');
        },
        // No fallback: an answer without the server's text shows its HTTP status line.
        onError: (error) => setServerError(failureText(error, undefined, SEND_TEXTS.network)),
      },
    );
  };

  const sent = keyed ? (JSON.parse(keyed.body) as TransferRequest) : null;

  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && close()}>
      <div ref={dialog} className="card modal-card modal" role="dialog" aria-modal="true" aria-labelledby={ids.title} onKeyDown={onKeyDown}>
        <h2 id={ids.title}>{SEND_TEXTS.title}</h2>

        {step === 'form' ? (
          <form noValidate onSubmit={onSubmit}>
            <div className="field">
              <label htmlFor={ids.address}>{SEND_TEXTS.addressLabel}</label>
              <input
                ref={addressInput}
                id={ids.address}
                className="input mono"
                name="to_address"
                autoComplete="off"
                spellCheck={false}
                placeholder="glb1…"
                value={values.to_address}
                onChange={(e) => set('to_address', e.target.value)}
                aria-invalid={errors.to_address ? 'true' : undefined}
                aria-describedby={errors.to_address ? ids.addressError : undefined}
              />
              {errors.to_address ? (
                <p id={ids.addressError} className="field-error">
                  {errors.to_address}
                </p>
              ) : null}
            </div>
            <div className="field">
              <label htmlFor={ids.amount}>{SEND_TEXTS.amountLabel}</label>
              <input
                id={ids.amount}
                className="input"
                name="amount"
                inputMode="decimal"
                autoComplete="off"
                value={values.amount}
                onChange={(e) => set('amount', e.target.value)}
                aria-invalid={errors.amount ? 'true' : undefined}
                aria-describedby={errors.amount ? `${ids.amountError} ${ids.hint}` : ids.hint}
              />
              <p id={ids.hint} className="hint">
                Available: {formatGlob(available)} GLOB{bonus > 0 ? ` ${SEND_TEXTS.bonusStays}` : ''}
              </p>
              {errors.amount ? (
                <p id={ids.amountError} className="field-error">
                  {errors.amount}
                </p>
              ) : null}
            </div>
            <div className="field">
              <label htmlFor={ids.note}>{SEND_TEXTS.noteLabel}</label>
              <input
                id={ids.note}
                className="input"
                name="note"
                maxLength={constants.fieldLimits.TransferRequest.note.maxLength}
                value={values.note}
                onChange={(e) => set('note', e.target.value)}
              />
            </div>
            <div className="btn-row modal-actions">
              <button type="button" className="btn" onClick={close}>
                {SEND_TEXTS.cancel}
              </button>
              <button type="submit" className="btn btn-primary">
                {SEND_TEXTS.review}
              </button>
            </div>
          </form>
        ) : null}

        {step === 'confirm' && sent ? (
          <div>
            <p ref={confirmHeading} tabIndex={-1} className="modal-intro">
              {SEND_TEXTS.confirmIntro}
            </p>
            <dl className="transfer-summary">
              <div>
                <dt>Recipient</dt>
                <dd className="mono">{sent.to_address}</dd>
              </div>
              <div>
                <dt>Amount</dt>
                <dd>{formatGlob(sent.amount)} GLOB</dd>
              </div>
              {sent.note ? (
                <div>
                  <dt>Note</dt>
                  <dd>{sent.note}</dd>
                </div>
              ) : null}
            </dl>
            {serverError ? (
              <p className="alert alert-error" role="alert">
                {serverError}
              </p>
            ) : null}
            <div className="btn-row modal-actions">
              <button type="button" className="btn" onClick={() => setStep('form')} disabled={transfer.isPending}>
                {SEND_TEXTS.back}
              </button>
              <button type="button" className="btn btn-primary" onClick={send} aria-busy={transfer.isPending || undefined}>
                {transfer.isPending ? SEND_TEXTS.sending : SEND_TEXTS.confirm}
              </button>
            </div>
          </div>
        ) : null}

        {step === 'done' && result ? (
          <div>
            <p ref={doneMessage} tabIndex={-1} className="alert alert-success" role="status">
              Sent {formatGlob(result.transaction.amount)} GLOB to {result.transaction.counterparty ?? sent?.to_address}. Your balance is now{' '}
              {formatGlob(result.balance)} GLOB.
            </p>
            <div className="btn-row modal-actions">
              <button type="button" className="btn btn-primary" onClick={close}>
                {SEND_TEXTS.close}
              </button>
            </div>
          </div>
        ) : null}
      </div>
    </div>
  );
}
