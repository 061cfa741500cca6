import { useEffect, useRef, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { FALLBACK_PACKAGES, invalidateBalance, walletMutations, walletQueries, type TokenPackage } from '../../api/queries/wallet';
import { Icon } from '../../components/Icon';
import { failureText } from '../../api/errors';
import { formatGlob } from '../../components/format';
import { formatPrice } from './format';

/** Shown when a purchase fails without a message of the server's. */
export const PURCHASE_FAILED = 'The purchase could not be completed. Nothing was charged. Please try again.';

/** The purchase check shows for 2 s; then the selection clears and balance and history reload. */
export const PURCHASE_CHECK_MS = 2_000;

type Selection = { id: TokenPackage['id']; phase: 'pending' | 'done' | 'redirect' };

/** Sends the browser to the payment page (a function of its own so tests can watch it). */
export const checkout = {
  go(url: string) {
    window.location.assign(url);
  },
};

/**
 * The four packages from the server; a click marks the package selected with a spinner,
 * then a check; the selection clears 2 s after success and balance and history reload. With Stripe configured the
 * server answers a Checkout URL and the browser goes there. A failed purchase says why (the server's message).
 */
export function PurchaseGrid({ userId }: { userId: string }) {
  const queryClient = useQueryClient();
  const packagesQuery = useQuery(walletQueries.packages());
  const packages = packagesQuery.data ?? FALLBACK_PACKAGES;
  const [selected, setSelected] = useState<Selection | null>(null);
  const [error, setError] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(
    () => () => {
      // Leaving within the 2 s: still reload what the purchase changed.
      if (timer.current) {
        clearTimeout(timer.current);
        void invalidateBalance(queryClient);
      }
    },
    [queryClient],
  );

  const purchase = useMutation({
    ...walletMutations.purchase(userId),
    // Here rather than per call: the balance still reloads if the page is left while the purchase runs.
    onSuccess: (result, pkg) => {
      if (result.checkout_url) {
        setSelected({ id: pkg.id, phase: 'redirect' });
        checkout.go(result.checkout_url);
        return;
      }
      setSelected({ id: pkg.id, phase: 'done' });
      timer.current = setTimeout(() => {
        timer.current = null;
        setSelected(null);
        void invalidateBalance(queryClient);
      }, PURCHASE_CHECK_MS);
    },
  });

  const buy = (pkg: TokenPackage) => {
    if (selected) return;
    setError(null);
    setSelected({ id: pkg.id, phase: 'pending' });
    purchase.mutate(pkg, {
      onError: (error) => {
        console.error('Token purchase failed:', error);
        setSelected(null);
        // The buyer is told why nothing was credited (e.g. no payment provider is configured).
        setError(failureText(error, PURCHASE_FAILED));
      },
    });
  };

  const selectedPkg = selected && packages.find((p) => p.id === selected.id);
  const announcement = !selectedPkg
    ? ''
    : selected.phase === 'pending'
      ? `Purchasing the ${selectedPkg.name} package...`
      : selected.phase === 'redirect'
        ? 'Redirecting to the payment page...'
        : `${selectedPkg.name} package purchased: ${formatGlob(selectedPkg.total_tokens)} GLOB added.`;

  return (
    <section className="app-section" aria-labelledby="wallet-purchase">
      <h2 id="wallet-purchase">Purchase Tokens</h2>
      <ul className="package-grid">
        {packages.map((pkg) => {
          const state = selected?.id === pkg.id ? selected.phase : null;
          const classes = ['card', 'package'];
          if (pkg.popular) classes.push('popular');
          if (state) classes.push('selected');
          return (
            <li key={pkg.id} className={classes.join(' ')} data-package={pkg.id}>
              {pkg.label ? <span className="badge badge-accent package-badge">{pkg.label}</span> : null}
              <h3>{pkg.name}</h3>
              <p className="package-tokens">
                <strong>{formatGlob(pkg.tokens)}</strong> GLOB
              </p>
              <p className="package-bonus">{pkg.bonus > 0 ? `+${formatGlob(pkg.bonus)} bonus` : '\u00a0'}</p>
              <p className="package-price">{formatPrice(pkg.price)}</p>
              <button
                type="button"
                className={pkg.popular ? 'btn btn-primary btn-block' : 'btn btn-block'}
                aria-disabled={selected ? 'true' : undefined}
                aria-busy={state === 'pending' || state === 'redirect' ? 'true' : undefined}
                onClick={() => buy(pkg)}
              >
                {state === 'pending' || state === 'redirect' ? (
                  <>
                    <span className="spinner small" aria-hidden="true" data-testid="purchase-spinner" />
                    Processing...
                  </>
                ) : state === 'done' ? (
                  <>
                    <Icon name="check" size={18} data-testid="purchase-check" />
                    Purchased
                  </>
                ) : (
                  `Buy ${pkg.name}`
                )}
              </button>
            </li>
          );
        })}
      </ul>
      {error ? (
        <p className="alert alert-error" role="alert">
          {error}
        </p>
      ) : null}
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
    </section>
  );
}
