import { DEFAULT_BRANDING, type Branding } from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { Client } from './client.entity';

@Injectable()
export class BrandingService {
  constructor(@InjectRepository(Client) private readonly clients: Repository<Client>) {}

  /** The tenant's logos and colours; DEFAULT_BRANDING (the console's own logos) for unknown tenants or unset fields. */
  async forClient(clientId: string | undefined): Promise<Branding> {
    const client = clientId ? await this.clients.findOne({ where: { id: clientId } }) : null;
    if (!client) return { ...DEFAULT_BRANDING, mainColor: null, bannerUrl: null, loginImageUrl: null };
    return {
      logoUrl: client.menuLogoUrl ?? DEFAULT_BRANDING.logoUrl,
      completeLogoUrl: client.completeMenuLogoUrl ?? DEFAULT_BRANDING.completeLogoUrl,
      mainColor: client.mainColor,
      bannerUrl: client.bannerUrl,
      loginImageUrl: client.loginImageUrl,
    };
  }
}
