import * as vscode from 'vscode';
import { SamplingError, type Provider, type Sample, type SampleRequest } from '../core/sampling/types';

export const LM_PREFIX = 'vscode-lm:';

/**
 * Samples a model of VS Code's Language Model API (`vscode-lm:<vendor>/<family>`). The API has
 * no `n`, so samples are taken one after another, and no sampling parameters: temperature and
 * seed are not honoured, which the log says once. VS Code asks the user for consent on the
 * first request, which is why runs start from a user's click.
 */
export class LanguageModelProvider implements Provider {
  readonly id: string;
  private warned = false;

  constructor(
    private readonly ref: string,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.id = ref;
  }

  private async model(): Promise<vscode.LanguageModelChat> {
    const [vendor, family] = this.ref.slice(LM_PREFIX.length).split('/');
    const [model] = await vscode.lm.selectChatModels({ ...(vendor ? { vendor } : {}), ...(family ? { family } : {}) });
    if (!model)
      throw new SamplingError(
        `${this.ref}: no such language model in this VS Code (is its extension installed and signed in?)`,
        'not-found',
      );
    return model;
  }

  async sample(request: SampleRequest, n: number, signal: AbortSignal): Promise<Sample[]> {
    const model = await this.model();
    if (
      !this.warned &&
      (request.temperature !== undefined || request.seed !== undefined || request.topP !== undefined)
    ) {
      this.warned = true;
      this.log.warn(
        `${this.ref}: the Language Model API does not take temperature, top_p or seed; samples use the model's own settings`,
      );
    }
    // The API has user and assistant turns only: a system message leads the first user turn.
    const messages = request.messages.map((m) =>
      m.role === 'assistant'
        ? vscode.LanguageModelChatMessage.Assistant(m.content)
        : vscode.LanguageModelChatMessage.User(m.role === 'system' ? `[system]\n${m.content}` : m.content),
    );
    const out: Sample[] = [];
    for (let k = 0; k < n; k++) {
      if (signal.aborted) throw SamplingError.cancelled();
      const cts = new vscode.CancellationTokenSource();
      const onAbort = (): void => cts.cancel();
      signal.addEventListener('abort', onAbort, { once: true });
      const t0 = Date.now();
      try {
        const res = await model.sendRequest(
          messages,
          { justification: 'vtask samples this model to measure how hard a task is for it.' },
          cts.token,
        );
        let text = '';
        for await (const part of res.text) text += part;
        out.push({
          text,
          finishReason: 'stop',
          model: model.id,
          takenAt: new Date().toISOString(),
          latencyMs: Date.now() - t0,
        });
      } catch (e) {
        if (e instanceof vscode.LanguageModelError)
          throw new SamplingError(
            `${this.ref}: ${e.message}`,
            e.code === vscode.LanguageModelError.NoPermissions.name ? 'auth' : 'server',
          );
        throw e;
      } finally {
        signal.removeEventListener('abort', onAbort);
        cts.dispose();
      }
    }
    return out;
  }

  async listModels(): Promise<string[]> {
    return (await vscode.lm.selectChatModels()).map((m) => `${LM_PREFIX}${m.vendor}/${m.family}`);
  }
}
