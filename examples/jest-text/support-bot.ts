// Stand-in for your support agent: canned replies so the example runs without one. Replace `reply`.
export const REFUND_POLICY = `Refund policy (v3, March 2026)
- Items can be returned within 30 days of delivery, unused and in their original packaging.
- Refunds go back to the original payment method within 5 business days of the return reaching our warehouse.
- Return shipping is free for defective items; otherwise a $6.95 label fee is deducted from the refund.
- Gift cards and final-sale items cannot be refunded.`

const REPLIES: Record<string, string> = {
  'How long do refunds take?':
    'Once your return reaches our warehouse, the refund goes back to your original payment method within 5 business days.',
  'Can I return a gift card? Answer yes or no, then one sentence why.':
    'No. Gift cards cannot be refunded under our refund policy.',
}

/** Asks the support agent a question. */
export async function reply(question: string): Promise<string> {
  const answer = REPLIES[question]
  if (answer === undefined) throw new Error(`no canned reply for: ${question}`)
  return answer
}
