import { describe, expect, it } from 'vitest';
import { BudgetExceeded, CallBudget } from '../../src/posthog/budget.js';

const limits = (maxRequests: number) => ({ maxRequests, wallClockMs: 60_000, throttleWaitMs: 0 });

describe('CallBudget.holdBack', () => {
  it('keeps requests for a step that spends them as reserved; the rest of the call cannot', () => {
    const budget = new CallBudget(limits(5));
    budget.holdBack(1);
    expect(budget.available()).toBe(4);
    for (let i = 0; i < 4; i++) budget.spend('a read');
    expect(budget.available()).toBe(0);
    expect(() => budget.spend('one more read')).toThrow(BudgetExceeded);
    budget.spend('the last step', true);
    expect(() => budget.spend('past the limit', true)).toThrow(/reached its budget of 5 upstream requests/);
  });

  it('holds nothing back when the call could not spare it', () => {
    const budget = new CallBudget(limits(2));
    budget.holdBack(1);
    expect(budget.available()).toBe(2);
    budget.spend('a');
    budget.spend('b');
    expect(() => budget.spend('c', true)).toThrow(BudgetExceeded);
  });
});
