import { OAuthConvertState } from './oauth-convert-state.entity';
import { OneTimePasscode } from './one-time-passcode.entity';
import { TokenAllowList } from './token-allow-list.entity';

export const AUTH_ENTITIES: Function[] = [OneTimePasscode, OAuthConvertState, TokenAllowList];
