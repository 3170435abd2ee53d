import { Link } from 'react-router';
import { Empty, PageHeader } from '../ui/components';

export function NotFound() {
  return (
    <>
      <PageHeader title="Page not found" />
      <Empty title="There is nothing at this address.">
        <Link to="/games">Back to your games</Link>
      </Empty>
    </>
  );
}
