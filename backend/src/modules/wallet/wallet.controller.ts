import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { Public } from '../../auth/public.decorator';
import { notYetAvailable } from '../../contract/errors';

/**
 * The wallet operations of the spec. Not live yet: each answers 501 with the Error body until the
 * wallet issue lands (request validation against the spec already applies).
 */
@Controller('api')
export class WalletController {
  /** The token packages for sale */
  @Public()
  @Get('wallet/packages')
  listPackages(): never {
    return notYetAvailable();
  }

  /** A user's wallet summary */
  @Get('wallet/:userId')
  getWallet(): never {
    return notYetAvailable();
  }

  /** A user's balance */
  @Get('wallet/:userId/balance')
  getBalance(): never {
    return notYetAvailable();
  }

  /** A user's wallet statistics */
  @Get('wallet/:userId/stats')
  getWalletStats(): never {
    return notYetAvailable();
  }

  /** A user's transaction history (wallet view) */
  @Get('wallet/:userId/history')
  getWalletHistory(): never {
    return notYetAvailable();
  }

  /** Daily earnings for a chart */
  @Get('wallet/:userId/earnings')
  getEarnings(): never {
    return notYetAvailable();
  }

  /** Send GLOB to another wallet */
  @Post('wallet/:userId/transfer')
  transferTokens(): never {
    return notYetAvailable();
  }

  /** Buy a token package */
  @Post('wallet/:userId/purchase')
  purchaseTokens(): never {
    return notYetAvailable();
  }

  /** A user's transactions */
  @Get('users/:userId/transactions')
  listTransactions(): never {
    return notYetAvailable();
  }

  /** Stripe event receiver */
  @Public()
  @Post('payments/stripe/webhook')
  @HttpCode(200)
  stripeWebhook(): never {
    return notYetAvailable();
  }
}
