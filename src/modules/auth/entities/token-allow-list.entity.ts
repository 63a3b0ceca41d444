import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn, type Relation } from 'typeorm';
import { ApiToken } from '../../identity/entities/api-token.entity';

/**
 * The allow-list of an API key (Coder `allow_list`), stored only when it is not the default
 * `[{"type":"*","id":"*"}]`; deleted with its key.
 */
@Entity({ name: 'auth_token_allow_lists' })
export class TokenAllowList {
  @PrimaryColumn({ name: 'token_id', type: 'varchar', length: 10 })
  tokenId: string;

  @OneToOne(() => ApiToken, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'token_id' })
  token: Relation<ApiToken>;

  @Column({ type: 'jsonb' })
  entries: { type: string; id: string }[];
}
