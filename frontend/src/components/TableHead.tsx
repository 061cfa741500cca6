/** A table's column headings, then a last column of row actions named for screen readers only. */
export function TableHead({ columns, action }: { columns: Record<string, string>; action: string }) {
  return (
    <thead>
      <tr>
        {Object.values(columns).map((c) => (
          <th key={c} scope="col">
            {c}
          </th>
        ))}
        <th scope="col">
          <span className="visually-hidden">{action}</span>
        </th>
      </tr>
    </thead>
  );
}
