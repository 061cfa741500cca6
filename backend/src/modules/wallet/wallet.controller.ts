import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { CurrentUser, type AuthUser } from '../../auth/auth-user';
import { Public } from '../../auth/public.decorator';
import type { RawBodyRequest } from '../../common/raw-body';
import type { QueryParams, RequestBody, ResponseBody } from '../../contract/types';
import { WalletService } from './wallet.service';

@Controller('api')
export class WalletController {
  constructor(private readonly wallet: WalletService) {}

  // Registered before wallet/:userId so that "packages" is never taken for a user id.
  @Public()
  @Get('wallet/packages')
  listPackages(): ResponseBody<'listPackages', 200> {
    return this.wallet.packages();
  }

  @Get('wallet/:userId')
  getWallet(@CurrentUser() user: AuthUser, @Param('userId') userId: string): Promise<ResponseBody<'getWallet', 200>> {
    return this.wallet.wallet(user.id, userId);
  }

  @Get('wallet/:userId/balance')
  getBalance(@CurrentUser() user: AuthUser, @Param('userId') userId: string): Promise<ResponseBody<'getBalance', 200>> {
    return this.wallet.balance(user.id, userId);
  }

  @Get('wallet/:userId/stats')
  getWalletStats(@CurrentUser() user: AuthUser, @Param('userId') userId: string): Promise<ResponseBody<'getWalletStats', 200>> {
    return this.wallet.stats(user.id, userId);
  }

  @Get('wallet/:userId/history')
  getWalletHistory(
    @CurrentUser() user: AuthUser,
    @Param('userId') userId: string,
    @Query() q: QueryParams<'getWalletHistory', 'limit'>,
  ): Promise<ResponseBody<'getWalletHistory', 200>> {
    return this.wallet.history(user.id, userId, q.limit, q.cursor, q.type);
  }

  @Get('wallet/:userId/earnings')
  getEarnings(
    @CurrentUser() user: AuthUser,
    @Param('userId') userId: string,
    @Query() q: QueryParams<'getEarnings', 'days'>,
  ): Promise<ResponseBody<'getEarnings', 200>> {
    return this.wallet.earnings(user.id, userId, q.days);
  }

  @Post('wallet/:userId/transfer')
  transferTokens(
    @CurrentUser() user: AuthUser,
    @Param('userId') userId: string,
    @Body() body: RequestBody<'transferTokens'>,
    @Headers('idempotency-key') idempotencyKey?: string,
  ): Promise<ResponseBody<'transferTokens', 201>> {
    return this.wallet.transfer(user.id, userId, body, idempotencyKey);
  }

  @Post('wallet/:userId/purchase')
  purchaseTokens(
    @CurrentUser() user: AuthUser,
    @Param('userId') userId: string,
    @Body() body: RequestBody<'purchaseTokens'>,
  ): Promise<ResponseBody<'purchaseTokens', 201>> {
    return this.wallet.purchase(user.id, userId, body);
  }

  @Get('users/:userId/transactions')
  listTransactions(
    @CurrentUser() user: AuthUser,
    @Param('userId') userId: string,
    @Query() q: QueryParams<'listTransactions', 'limit'>,
  ): Promise<ResponseBody<'listTransactions', 200>> {
    return this.wallet.history(user.id, userId, q.limit, q.cursor);
  }

  @Public()
  @Post('payments/stripe/webhook')
  @HttpCode(200)
  stripeWebhook(@Req() req: RawBodyRequest, @Headers('stripe-signature') signature?: string): Promise<ResponseBody<'stripeWebhook', 200>> {
    return this.wallet.stripeWebhook(req.rawBody, signature);
  }
}
